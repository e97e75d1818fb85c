import { families } from "./families/index.js";
import { quick } from "./quick.js";

// Bad input, hostile pointer files, races, kills (quick mode; `npm run torture` runs them in full).
quick(families.slice(0, 4));
