export async function demoCommand(_argv: readonly string[]): Promise<number> { return 0; }
