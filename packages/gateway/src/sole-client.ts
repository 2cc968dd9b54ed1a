/** What a backend's request outside any call needs: the one client that can answer it. */
export interface SoleClient {
  /**
   * Asks the client `method` for `server` (no call of that backend is running), or throws
   * an `RpcError` the backend receives, saying why it cannot be asked.
   */
  ask(
    server: string,
    method: string,
    capability: 'elicitation' | 'sampling' | 'roots',
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<unknown>;
}
