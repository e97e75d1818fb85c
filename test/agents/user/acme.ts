/** The smallest plugin file the user-plugin tests start from, as a user would write it. */
export const ACME_PLUGIN = { name: "acme", names: ["acme"], grammar: "acme-[0-9a-f]{8}", resume: ["{args}", "--resume", "{id}"] };
