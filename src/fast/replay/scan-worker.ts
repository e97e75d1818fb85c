import { parentPort, workerData } from "node:worker_threads";
import { scanStretch, type ScanJob } from "./stretch.js";

// A worker thread of a parallel replay: one stretch, its blocks sent to the main thread.
const port = parentPort;
if (port !== null) scanStretch(workerData as ScanJob, (message) => port.postMessage(message));
