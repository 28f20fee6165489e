// Reading the dashboard's API. A 401 means the session ended: back to the login page.

export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  if (response.status === 401) {
    location.assign('/login');
    throw new ApiError(401, 'not logged in');
  }
  const body = (await response.json()) as unknown;
  if (!response.ok) {
    const message = typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string' ? (body as { error: string }).error : response.statusText;
    throw new ApiError(response.status, message);
  }
  return body as T;
}
