// The browser wallet, through the standard injected EIP-1193 provider (window.ethereum).

export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] | object }): Promise<unknown>;
  /** EIP-1193 events (chainChanged, accountsChanged); optional: some injected providers have none. */
  on?(event: string, listener: (...args: unknown[]) => void): void;
  removeListener?(event: string, listener: (...args: unknown[]) => void): void;
}

export interface ProviderRpcError extends Error {
  code?: number;
}

declare global {
  interface Window {
    ethereum?: Eip1193Provider;
  }
}

export const getInjectedProvider = (): Eip1193Provider | null =>
  typeof window !== "undefined" && window.ethereum && typeof window.ethereum.request === "function" ? window.ethereum : null;

/** EIP-1193 4001: the user said no in the wallet. */
export const isUserRejection = (e: unknown) => (e as ProviderRpcError | null)?.code === 4001;
