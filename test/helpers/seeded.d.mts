export declare function seeded(seed: number): () => number;
