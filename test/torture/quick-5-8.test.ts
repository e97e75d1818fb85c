import { families } from "./families/index.js";
import { quick } from "./quick.js";

// Full disks, hostile plugins, hostile webhook servers, secrets (quick mode; `npm run torture` runs them in full).
quick(families.slice(4));
