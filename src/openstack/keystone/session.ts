/**
 * The token cache of one cloud config: issues a token on first use, reuses it until a little before it expires,
 * re-issues after a service refused it (the HTTP layer calls invalidate on a 401, then retries once).
 *
 * Expiry is measured on OUR clock: lifetime = expires_at − issued_at (both Keystone's clock), counted from when
 * we received the token. A skewed Keystone clock (or a simulator with a manual clock) therefore neither makes every
 * token look expired (re-auth storm) nor makes a stale one look fresh for hours. Without issued_at, expires_at is
 * compared with our clock directly.
 *
 * Concurrent callers share one in-flight token request (no thundering herd of POST /auth/tokens).
 */
import type { Logger } from '../../log/logger.js';
import { silentLogger } from '../../log/logger.js';
import type { HttpSession, TokenSource } from '../http.js';
import type { IssuedToken } from './auth.js';
import { issueToken } from './auth.js';
import type { CloudConfig } from './clouds-config.js';

export interface KeystoneSessionOptions {
  /** Our clock (ms since epoch); injectable for tests. */
  now?: () => number;
  /** Refresh this long before the local expiry (default 2 min, at most half the token's lifetime). */
  refreshMarginMs?: number;
  logger?: Logger;
}

interface Cached {
  issued: IssuedToken;
  /** Local ms at which we stop using it. */
  refreshAt: number;
}

const MAX_REMEMBERED_TOKENS = 16;

export class KeystoneSession implements TokenSource {
  private cached: Cached | undefined;
  private inFlight: Promise<Cached> | undefined;
  /** Every token this session has held, for redaction (bounded). */
  private readonly seenTokens: string[] = [];
  private readonly now: () => number;
  private readonly marginMs: number;
  private readonly logger: Logger;
  /** Number of tokens issued so far (observability and tests). */
  issueCount = 0;

  constructor(
    private readonly cloud: CloudConfig,
    private readonly identity: HttpSession,
    options: KeystoneSessionOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.marginMs = options.refreshMarginMs ?? 120_000;
    this.logger = options.logger ?? silentLogger();
  }

  async token(): Promise<string> {
    return (await this.current()).token;
  }

  /** The cached token info, re-issuing if it is missing or due for refresh. */
  async current(): Promise<IssuedToken> {
    return (await this.ensure()).issued;
  }

  invalidate(token: string): void {
    if (this.cached?.issued.token === token) {
      this.logger.debug('keystone token refused by a service; re-authenticating', { cloud: this.cloud.cloudName });
      this.cached = undefined;
    }
  }

  secrets(): readonly string[] {
    const auth = this.cloud.auth;
    return [auth.type === 'password' ? auth.password : auth.secret, ...this.seenTokens];
  }

  private async ensure(): Promise<Cached> {
    const cached = this.cached;
    if (cached !== undefined && this.now() < cached.refreshAt) return cached;
    if (this.inFlight === undefined) {
      this.inFlight = this.issue().finally(() => {
        this.inFlight = undefined;
      });
    }
    return this.inFlight;
  }

  private async issue(): Promise<Cached> {
    const issued = await issueToken(this.identity, this.cloud.auth, this.cloud.scope);
    const receivedAt = this.now();
    this.issueCount++;
    this.seenTokens.push(issued.token);
    if (this.seenTokens.length > MAX_REMEMBERED_TOKENS) this.seenTokens.shift();
    const expires = Date.parse(issued.expiresAt);
    const issuedAt = issued.issuedAt !== undefined ? Date.parse(issued.issuedAt) : Number.NaN;
    const lifetime = Number.isNaN(issuedAt) ? expires - receivedAt : expires - issuedAt;
    const margin = Math.min(this.marginMs, Math.max(lifetime, 0) / 2);
    const cached: Cached = { issued, refreshAt: receivedAt + lifetime - margin };
    this.cached = cached;
    this.logger.debug('keystone token issued', {
      cloud: this.cloud.cloudName, projectId: issued.project?.id, expiresAt: issued.expiresAt, lifetimeMs: lifetime,
    });
    return cached;
  }
}
