/** How long the stack's database certificates last, and how long before their end a deploy renews them (platform:tls:*). */
export const TLS_DEFAULTS = { caValidityDays: 7300, caRenewBeforeDays: 365, serverValidityDays: 825, serverRenewBeforeDays: 90 };
