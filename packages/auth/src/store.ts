import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { isRecord } from '@mcpkit/jsonrpc/internal';
import { type AuthRecord, storedRecord } from './stored-record.js';

export type { AuthRecord, StoredClient, StoredTokens } from './stored-record.js';

/** Where credentials live. Keys are MCP server URLs (or names). */
export interface TokenStore {
  get(key: string): Promise<AuthRecord | undefined>;
  set(key: string, record: AuthRecord): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Keeps records in memory (tests, short-lived hosts). */
export class MemoryTokenStore implements TokenStore {
  private readonly records = new Map<string, string>();
  async get(key: string): Promise<AuthRecord | undefined> {
    const text = this.records.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as AuthRecord);
  }
  async set(key: string, record: AuthRecord): Promise<void> {
    this.records.set(key, JSON.stringify(record));
  }
  async delete(key: string): Promise<void> {
    this.records.delete(key);
  }
}

/** `$XDG_DATA_HOME/mcpkit/auth`, else `~/.local/share/mcpkit/auth` (Windows: `%LOCALAPPDATA%`). */
export function defaultAuthDir(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  if (process.platform === 'win32' && env.LOCALAPPDATA)
    return path.join(env.LOCALAPPDATA, 'mcpkit', 'auth');
  const data = env.XDG_DATA_HOME || path.join(home, '.local', 'share');
  return path.join(data, 'mcpkit', 'auth');
}

/**
 * One file per server under a private directory (0700), each written atomically (a
 * temporary file renamed over it) with mode 0600.
 */
export class FileTokenStore implements TokenStore {
  readonly dir: string;
  constructor(dir: string = defaultAuthDir()) {
    this.dir = dir;
  }

  /** The file that holds `key`'s record. */
  fileFor(key: string): string {
    const digest = createHash('sha256').update(key).digest('hex').slice(0, 32);
    return path.join(this.dir, `${digest}.json`);
  }

  async get(key: string): Promise<AuthRecord | undefined> {
    let text: string;
    try {
      text = await readFile(this.fileFor(key), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // A damaged file is as good as none: the next login rewrites it.
      return undefined;
    }
    return isRecord(parsed) && parsed.key === key ? storedRecord(parsed.record) : undefined;
  }

  async set(key: string, record: AuthRecord): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700).catch(() => {});
    const file = this.fileFor(key);
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temp, `${JSON.stringify({ key, record }, null, 2)}\n`, { mode: 0o600 });
    await chmod(temp, 0o600);
    await rename(temp, file);
  }

  async delete(key: string): Promise<void> {
    await rm(this.fileFor(key), { force: true });
  }
}

type KeyringEntry = new (
  service: string,
  account: string,
) => {
  getPassword(): string | null | undefined;
  setPassword(password: string): void;
  deletePassword(): boolean | undefined;
};

/**
 * The operating system's keychain (macOS Keychain, Windows Credential Manager, Secret
 * Service), through the optional dependency `@napi-rs/keyring`. `KeychainTokenStore.open()`
 * rejects with a clear error when the module or the keychain is not available.
 */
export class KeychainTokenStore implements TokenStore {
  private constructor(
    private readonly Entry: KeyringEntry,
    private readonly service: string,
  ) {}

  static async open(service = 'mcpkit'): Promise<KeychainTokenStore> {
    let mod: { Entry: KeyringEntry };
    try {
      mod = (await import('@napi-rs/keyring')) as unknown as typeof mod;
    } catch (cause) {
      throw new Error(
        'the OS keychain store needs the optional dependency @napi-rs/keyring, which is not installed for this platform; use the file store instead',
        { cause },
      );
    }
    const store = new KeychainTokenStore(mod.Entry, service);
    try {
      new mod.Entry(service, '__mcpkit_probe__').getPassword();
    } catch (cause) {
      throw new Error(
        `the OS keychain is not available here (${(cause as Error).message}); use the file store instead`,
        { cause },
      );
    }
    return store;
  }

  async get(key: string): Promise<AuthRecord | undefined> {
    const text = new this.Entry(this.service, key).getPassword();
    if (!text) return undefined;
    try {
      // Other software can write under this service name: checked like a file's record.
      return storedRecord(JSON.parse(text));
    } catch {
      return undefined;
    }
  }
  async set(key: string, record: AuthRecord): Promise<void> {
    new this.Entry(this.service, key).setPassword(JSON.stringify(record));
  }
  async delete(key: string): Promise<void> {
    try {
      new this.Entry(this.service, key).deletePassword();
    } catch {}
  }
}
