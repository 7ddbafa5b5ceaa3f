/**
 * Whether an env variable that gets another service's public URL (`${x.external_url}`) names an
 * address the server calls, where the internal URL is the right one (calls through the edge
 * leave the stack's network and come back), or a URL handed to people and browsers: links in
 * e-mails, redirects, CORS origins, webhooks that another party calls, the site's address.
 */

/** Values meant for browsers or for cross-origin settings. */
const BROWSER_FACING = /^NEXT_PUBLIC_|CORS|ORIGIN|PUBLIC|EXTERNAL|REDIRECT|CALLBACK|ALLOWED_HOST|CSRF|TRUSTED/;

/** URLs people follow or other parties call: the site and its pages, links in mail, auth and webhooks. */
const HANDED_OUT =
  /FRONTEND|FRONT_END|CLIENT_URL|SITE|WEBSITE|WEB_URL|WEBAPP|APP_URL|DASHBOARD|PORTAL|DOMAIN|LINK|E?MAIL|INVITE|RESET|VERIFY|CONFIRM|UNSUBSCRIBE|LOGIN|NEXTAUTH_URL|AUTH_URL|WEBHOOK/;

/** URLs a server calls. */
const CALLED = /API|BACKEND|ENDPOINT|SERVICE|SERVER|GRAPHQL|GQL|RPC|UPSTREAM/;

/**
 * True when `key` reads as an address its service calls. A Next.js app's public URL in another
 * service is a link or redirect target unless the name says it is called (an API route).
 */
export function isServerCallName(key: string, targetType: string | undefined): boolean {
  const name = key.toUpperCase();
  if (BROWSER_FACING.test(name) || HANDED_OUT.test(name)) return false;
  if (targetType === "nextjs") return CALLED.test(name);
  return true;
}
