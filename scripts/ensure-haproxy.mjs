// The scale-out tests put a real HAProxy from Debian in front of the gateway replicas. This
// installs it when it is missing (see ensure-debian-binary.mjs). Run directly, or import
// ensureHaproxy().
import { pathToFileURL } from 'node:url';
import { ensureDebianBinary } from './ensure-debian-binary.mjs';

export function ensureHaproxy() {
  return ensureDebianBinary({
    name: 'ensure-haproxy',
    binary: '/usr/sbin/haproxy',
    debianPackage: 'haproxy',
    envVar: 'MCPKIT_HAPROXY',
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) ensureHaproxy();
