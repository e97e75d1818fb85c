import { families } from "./families/index.js";
import { quick } from "./quick.js";

// Hostile agent output in a live run; names, bytes and impostors (quick mode; `npm run torture` runs them in full).
quick(families.filter((family) => ["10", "11"].includes(family.name.split(" ")[0] ?? "")));
