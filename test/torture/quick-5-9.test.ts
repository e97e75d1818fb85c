import { families } from "./families/index.js";
import { quick } from "./quick.js";

// Full disks, hostile plugins, hostile webhook servers, secrets, hostile agent stores (quick mode;
// `npm run torture` runs them in full).
quick(families.filter((family) => ["5", "6", "7", "8", "9"].includes(family.name.split(" ")[0] ?? "")));
