// redlock 5 ships its types without pointing its package.json "exports" at them: the part the
// benchmarks use, declared here.
declare module 'redlock' {
  export interface Settings {
    retryCount?: number;
    retryDelay?: number;
    retryJitter?: number;
  }
  export interface Lock {
    release(): Promise<unknown>;
  }
  export default class Redlock {
    constructor(clients: Iterable<unknown>, settings?: Settings);
    acquire(resources: string[], duration: number, settings?: Settings): Promise<Lock>;
  }
}
