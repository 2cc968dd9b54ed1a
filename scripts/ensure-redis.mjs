// The scale-out tests start a real redis-server from Debian. This installs it when it is
// missing (see ensure-debian-binary.mjs). Run directly, or import ensureRedis().
import { pathToFileURL } from 'node:url';
import { ensureDebianBinary } from './ensure-debian-binary.mjs';

export function ensureRedis() {
  return ensureDebianBinary({
    name: 'ensure-redis',
    binary: '/usr/bin/redis-server',
    debianPackage: 'redis-server',
    envVar: 'MCPKIT_REDIS_SERVER',
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) ensureRedis();
