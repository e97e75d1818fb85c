import type { Family } from "../harness.js";
import { input } from "./input.js";
import { pointer } from "./pointer.js";
import { races } from "./races.js";
import { kills } from "./kills.js";
import { disk } from "./disk.js";
import { plugins } from "./plugins.js";
import { webhook } from "./webhook.js";
import { secrets } from "./secrets.js";
import { stores } from "./stores.js";
import { output } from "./output.js";
import { names } from "./names.js";

/** Every attack family, in the order of the table. */
export const families: readonly Family[] = [input, pointer, races, kills, disk, plugins, webhook, secrets, stores, output, names];
