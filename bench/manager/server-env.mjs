// The environment every connect-all implementation gives its servers: the one
// @mcpkit/transport-stdio gives by default (paths, user, locale, terminal, and the host's
// trust, proxy and registry settings). It matters for the figures: where the host sets
// NODE_EXTRA_CA_CERTS (this VM does), every Node server given it reads and parses that
// bundle as it starts, about 40 ms of CPU. The manager passes it on by design (npx behind a
// TLS-intercepting proxy needs it); a floor or SDK v1 run that starts its servers without
// it would be timing a cheaper server start, not a cheaper client. So all three use this.
import { inheritedEnvironment } from '@mcpkit/transport-stdio';

export const serverEnvironment = () => inheritedEnvironment('safe', process.env, process.platform);
