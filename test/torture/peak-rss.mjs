// Preloaded into the torture suite's sessionpin processes (node --import): writes the process's
// peak resident set (KiB) to $TORTURE_PEAK_FILE when it exits, so memory bounds need no wrapper.
import { writeFileSync } from "node:fs";

const file = process.env.TORTURE_PEAK_FILE;
if (file) {
  process.on("exit", () => {
    try {
      writeFileSync(file, String(process.resourceUsage().maxRSS));
    } catch {
      // the folder may be gone or full: the figure is then simply missing
    }
  });
}
