// An MCP server behind a real OpenID provider, for oma-mcp's OAuth tests: one Node process
// with two HTTP servers on loopback.
//
// - The authorization server: `oidc-provider` (pinned in package.json), issuer
//   `http://localhost:AUTH_PORT`, with open dynamic client registration (clients are
//   `native` by default, so loopback redirect URIs `http://127.0.0.1:<port>/callback` are
//   allowed, RFC 8252), PKCE S256 required, resource indicators (RFC 8707) with the MCP URL as
//   the only resource, JWT access tokens (RFC 9068) for it with scope `mcp:tools`, refresh
//   tokens (for `offline_access`) rotated on every use, the client credentials grant for one
//   static confidential client, and a login page of its own: `GET /interaction/<uid>` shows a
//   form, `POST /interaction/<uid>` logs in the test account and grants what was asked.
// - The MCP server (`@modelcontextprotocol/sdk`, stateless streamable HTTP) at
//   `http://localhost:MCP_PORT/mcp`: protected resource metadata (RFC 9728) at
//   `/.well-known/oauth-protected-resource/mcp` naming the issuer, `401` with
//   `WWW-Authenticate: Bearer ... resource_metadata="..."` without a valid token, access tokens
//   checked with `jose` against the provider's JWKS (signature, issuer, `aud` = the MCP URL,
//   `exp`, scope `mcp:tools`), and two tools: `greet` and `whoami` (with an output schema).
//
// Environment: MCP_PORT and AUTH_PORT (default 0: any free port), ACCESS_TOKEN_TTL (seconds,
// default 3600), CLIENT_CREDENTIALS_ID and CLIENT_CREDENTIALS_SECRET (the static client of
// the client credentials grant; defaults below).
//
// Stdout, one line per event, no secrets: `issuer <url>`, then `listening on <MCP URL>` once
// both servers accept connections; `registration <client id>`, `login <account>`,
// `authorization <client id>` (a code issued), `grant <grant type>` (a token issued);
// errors go to stderr as `error <event>: <message>`.

import fs from 'node:fs';
import http from 'node:http';

import Provider, { errors } from 'oidc-provider';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const HOST = '127.0.0.1';
const SCOPE = 'mcp:tools';
const ACCOUNT = 'test-user';
const TTL = Number(process.env.ACCESS_TOKEN_TTL ?? 3600);
const CC_ID = process.env.CLIENT_CREDENTIALS_ID ?? 'machine';
const CC_SECRET = process.env.CLIENT_CREDENTIALS_SECRET ?? 'machine-secret';

/** Starts listening on `port` (0: any) on loopback; resolves to the port. */
function listen(server, port) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => resolve(server.address().port));
  });
}

// Both ports first: the issuer and the resource name them.
const authServer = http.createServer();
const mcpServer = http.createServer();
const authPort = await listen(authServer, Number(process.env.AUTH_PORT ?? 0));
const mcpPort = await listen(mcpServer, Number(process.env.MCP_PORT ?? 0));
const ISSUER = `http://localhost:${authPort}`;
const MCP_URL = `http://localhost:${mcpPort}/mcp`;
const RESOURCE_METADATA_URL = `http://localhost:${mcpPort}/.well-known/oauth-protected-resource/mcp`;

// ---------------------------------------------------------------------------------------------
// The authorization server
// ---------------------------------------------------------------------------------------------

const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const signingKey = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };

const provider = new Provider(ISSUER, {
  clients: [
    {
      client_id: CC_ID,
      client_secret: CC_SECRET,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      scope: SCOPE,
    },
  ],
  clientDefaults: {
    application_type: 'native',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  },
  cookies: { keys: ['oma-mcp-test-cookie-key'] },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => MCP_URL,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator) => {
        if (indicator !== MCP_URL) throw new errors.InvalidTarget();
        return {
          scope: SCOPE,
          audience: MCP_URL,
          accessTokenTTL: TTL,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        };
      },
    },
  },
  findAccount: (ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  jwks: { keys: [signingKey] },
  pkce: { required: () => true },
  responseTypes: ['code'],
  rotateRefreshToken: true,
  // `mcp:tools` too: a client's registered `scope` may hold only scopes listed here.
  scopes: ['openid', 'offline_access', SCOPE],
  ttl: {
    AccessToken: TTL,
    ClientCredentials: TTL,
    Grant: 3600,
    IdToken: 3600,
    Interaction: 600,
    RefreshToken: 3600,
    Session: 3600,
  },
});

provider.on('registration_create.success', (ctx, client) => console.log(`registration ${client.clientId}`));
provider.on('authorization.success', (ctx) => console.log(`authorization ${ctx.oidc.client.clientId}`));
provider.on('grant.success', (ctx) => console.log(`grant ${ctx.oidc.params.grant_type}`));
for (const event of ['authorization.error', 'grant.error', 'registration_create.error', 'server_error']) {
  provider.on(event, (ctx, error) => console.error(`error ${event}: ${error.message} ${error.error_description ?? ''}`));
}

/** The login page: one form that logs in the test account and approves the request. */
function page(uid, clientId, scope) {
  const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html>
<head><meta charset="utf-8"><title>Sign in</title></head>
<body>
<h1>Sign in to ${escape(ISSUER)}</h1>
<p>The client ${escape(clientId)} asks for: ${escape(scope)}</p>
<form method="post" action="/interaction/${escape(uid)}">
  <input type="text" name="login" value="${ACCOUNT}">
  <input type="hidden" name="approve" value="yes">
  <button type="submit">Sign in and approve</button>
</form>
</body>
</html>
`;
}

/** The form body of a request. */
async function formBody(req) {
  let body = '';
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}

/** `GET`/`POST /interaction/<uid>`. */
async function interaction(req, res, uid) {
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) throw new errors.InvalidRequest('interaction mismatch');
  const { params, prompt } = details;
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(page(uid, params.client_id, params.scope ?? ''));
    return;
  }
  const form = await formBody(req);
  const accountId = form.get('login') || ACCOUNT;
  console.log(`login ${accountId}`);
  // The consent: every scope asked for, for the resource asked for (the provider lists the
  // missing ones only from the consent prompt on; this one form answers the login prompt too).
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId, clientId: params.client_id });
  const requested = String(params.scope ?? '').split(' ').filter(Boolean);
  if (requested.length) grant.addOIDCScope(requested.join(' '));
  const resource = params.resource ?? MCP_URL;
  if (requested.includes(SCOPE)) grant.addResourceScope(resource, SCOPE);
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}

const providerCallback = provider.callback();
authServer.on('request', (req, res) => {
  const match = /^\/interaction\/([^/?]+)$/.exec(req.url.split('?')[0]);
  if (!match) {
    providerCallback(req, res);
    return;
  }
  interaction(req, res, match[1]).catch((error) => {
    console.error(`error interaction: ${error.message}`);
    res.writeHead(400, { 'content-type': 'text/plain' });
    res.end(`the login failed: ${error.message}\n`);
  });
});

// ---------------------------------------------------------------------------------------------
// The MCP server
// ---------------------------------------------------------------------------------------------

const jwks = createRemoteJWKSet(new URL(`${ISSUER}/jwks`));

/** The SDK's token verifier: a JWT access token for this resource, signed by the issuer. */
const verifier = {
  async verifyAccessToken(token) {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        issuer: ISSUER,
        audience: MCP_URL,
        typ: 'at+jwt',
        requiredClaims: ['exp', 'client_id'],
      }));
    } catch (error) {
      throw new InvalidTokenError(`the access token is not valid: ${error.code ?? error.message}`);
    }
    return {
      token,
      clientId: payload.client_id,
      scopes: String(payload.scope ?? '').split(' ').filter(Boolean),
      expiresAt: payload.exp,
      resource: new URL(MCP_URL),
      extra: { subject: payload.sub ?? null },
    };
  },
};

const TOOLS = [
  {
    name: 'greet',
    description: 'Greets someone by name.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string', description: 'Who to greet' } },
      required: ['name'],
    },
  },
  {
    name: 'whoami',
    description: 'Who the access token of this call was issued to.',
    inputSchema: { type: 'object', properties: {} },
    outputSchema: {
      type: 'object',
      properties: {
        subject: { type: 'string', description: 'The user (`sub`), or the client id for a client credentials token' },
        clientId: { type: 'string', description: 'The client the token was issued to (`client_id`)' },
        scope: { type: 'string', description: 'The scopes of the token' },
      },
      required: ['subject', 'clientId', 'scope'],
    },
    annotations: { readOnlyHint: true },
  },
];

/** A server for one request (stateless), answering for the caller `auth`. */
function mcp(auth) {
  const server = new Server({ name: 'oidc-login-test', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args = {} } = request.params;
    if (name === 'greet') {
      return { content: [{ type: 'text', text: `Hello, ${args.name}!` }] };
    }
    if (name === 'whoami') {
      const who = {
        subject: auth.extra.subject ?? auth.clientId,
        clientId: auth.clientId,
        scope: auth.scopes.join(' '),
      };
      return { content: [{ type: 'text', text: JSON.stringify(who) }], structuredContent: who };
    }
    return { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true };
  });
  return server;
}

const app = createMcpExpressApp();
app.get('/.well-known/oauth-protected-resource/mcp', (req, res) => {
  res.json({
    resource: MCP_URL,
    authorization_servers: [ISSUER],
    scopes_supported: [SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'oma-mcp OIDC login test server',
  });
});
const bearer = requireBearerAuth({
  verifier,
  requiredScopes: [SCOPE],
  resourceMetadataUrl: RESOURCE_METADATA_URL,
});
app.post('/mcp', bearer, async (req, res) => {
  const server = mcp(req.auth);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    transport.close();
    server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  } catch (error) {
    console.error(`error mcp: ${error.message}`);
    if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null });
  }
});
for (const method of ['get', 'delete']) {
  app[method]('/mcp', bearer, (req, res) => {
    res.status(405).set('allow', 'POST').json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
  });
}
mcpServer.on('request', app);

console.log(`issuer ${ISSUER}`);
console.log(`listening on ${MCP_URL}`);

// The test kills this process; when stdin is a pipe (as a test starts it), its end (the test
// gone) ends it too. Started by hand (a terminal, or /dev/null in the background), it runs
// until killed.
if (fs.fstatSync(0).isFIFO()) {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}
