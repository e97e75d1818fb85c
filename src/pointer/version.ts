/** Bumped only for changes an older sessionpin would misread; readers leave newer files alone. */
export const POINTER_VERSION = 1;
