/**
 * What a failed @kubernetes/client-node call says, for the Nova adapters' typed errors: the HTTP status, the API
 * server's Status reason (a bare word only) and its message (at most 300 characters), or that the API could not be
 * reached. One reading for the config store and the secret-store reader.
 */
export const apiCodeOf = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
};

const statusOf = (body: unknown): { reason?: unknown; message?: unknown } => {
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as { reason?: unknown; message?: unknown };
    } catch {
      return {};
    }
  }
  return typeof body === 'object' && body !== null ? (body as { reason?: unknown; message?: unknown }) : {};
};

/** `<what>: the API server answered <code>[ <Reason>][: <message>]`, or `<what>: cannot reach the Kubernetes API`. */
export const describeApiError = (error: unknown, what: string): { message: string; code?: number } => {
  const code = apiCodeOf(error);
  if (code === undefined) return { message: `${what}: cannot reach the Kubernetes API` };
  const status = statusOf((error as { body?: unknown }).body);
  const reason = typeof status.reason === 'string' && /^[A-Za-z]+$/.test(status.reason) ? ` ${status.reason}` : '';
  const message = typeof status.message === 'string' && status.message !== '' ? `: ${status.message.slice(0, 300)}` : '';
  return { message: `${what}: the API server answered ${code}${reason}${message}`, code };
};
