// Run under a PTY by driver.test.ts: says the terminal it was given, then the bytes it reads up
// to and including the first carriage return, as hex, in colour (an escape the driver's text strips).
process.stdin.setRawMode(true);
process.stdout.write(`\x1b[1mterminal ${process.stdout.columns}x${process.stdout.rows} ${process.env.TERM}\x1b[0m\r\n`);
const seen = [];
process.stdin.on("data", (chunk) => {
  seen.push(chunk);
  const all = Buffer.concat(seen);
  if (!all.includes(0x0d)) return;
  process.stdout.write(`\x1b[32mread ${all.toString("hex")}\x1b[0m\r\n`, () => process.exit(0));
});
