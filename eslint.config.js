// Type-aware checks the compiler does not make: a switch over a union that forgets a member,
// and a promise nobody awaits or catches (a failed pointer write that vanishes silently).
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "interop/**", "node_modules/**", "fixtures/**", "bench/**", "scripts/**", "examples/**"] },
  {
    files: ["src/**/*.ts", "test/**/*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
    },
  },
);
