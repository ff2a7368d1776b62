import net from 'node:net';

/**
 * Checks the wanted ports are free and picks distinct free ones for the zeros, by binding them all at once
 * (then releasing them). Also keeps the readiness probe from talking to some other process on a taken port.
 */
export async function reservePorts(ip: string, wanted: number[]): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    for (const port of wanted) {
      const server = net.createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', (err: NodeJS.ErrnoException) =>
          reject(err.code === 'EADDRINUSE' ? new Error(`Port ${port} on ${ip} is already in use`) : err),
        );
        server.listen(port, ip, resolve);
      });
    }
    return servers.map((server) => (server.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/** `host:port`, with an IPv6 host in brackets. */
export function hostPort(host: string, port: number): string {
  return net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
}
