/**
 * Kontor's layers, declared once and enforced in CI (`bun run check:layers`); docs/architecture.md
 * draws them and says why. From the bottom:
 *
 *   db/                the connection, the migration runner, statements, the schema (db/schema/, a file per feature) and its values
 *   server/lib/        helpers of every feature (money, dates, lists, errors, IBANs, the fiscal calendar, …); not all pure
 *   the kernel         HTTP, authentication, logs, metrics, the runtime, configuration, backups, the outbox worker, scheduled runs
 *   the features       every other folder of server/, in FEATURE_TIERS order
 *   composition roots  server/app.ts, serve.ts, http-thread.ts, bootstrap.ts, data-migrations.ts, cli/
 *
 * A module may import its own folder and anything below its layer, never above it. Among the
 * features, a feature may import the features of lower tiers only: not its own tier's, not a
 * higher one's. Type-only imports count: a type names what a module knows.
 */

const KERNEL = ["http", "auth", "metrics", "docs", "backup", "outbox", "schedule"];
const KERNEL_FILES = ["log", "runtime", "config", "version"];
const ROOT_FILES = ["app", "serve", "http-thread", "bootstrap", "data-migrations", "background"];

/** The features, bottom tier first. */
const FEATURE_TIERS = [
  // the document model: what an issued document says, and its PDF and UBL renderers; fed data, it imports no feature
  ["documents"],
  // the posting core (chart roles, rules from a document to journal lines, the one writer); readers of incoming files
  ["ledger", "inbound"],
  ["audit", "vat-rates"],
  // the one write path of a change's side effects: postings, audit entry, outbox (webhook events)
  ["changes"],
  // settlement: payments of invoices and expenses and bank matches, below the documents they settle
  // the Belgian VAT return (its grid table, what each document contributes, filing), read by reports
  ["settlement", "accounts", "contacts", "tokens", "bank-accounts", "expense-categories", "meta", "journal", "vat-returns"],
  ["customers", "suppliers", "orgs", "reports"],
  ["webhooks", "fiscal-years", "invoices", "expenses"],
  // banking and payment runs (pain.001 files; banking matches their EndToEndIds through the schema alone);
  // sending documents (e-mail, Peppol access points) and statutory interest on late invoices
  ["banking", "payment-runs", "sending", "interest"],
  // what runs on a schedule over the documents: reminders (they send and charge interest) and recurring invoices
  ["reminders", "recurring"],
  // the Belgian listings, built from the VAT return's own rows (vat-returns) so that their totals are the return's
  ["listings"],
];
const FEATURES = FEATURE_TIERS.flat();

const folders = (names) => `^server/(${names.join("|")})/`;
const files = (names) => `^server/(${names.join("|")})\\.ts$`;

const featureOrder = FEATURE_TIERS.flatMap((tier, i) =>
  tier.map((feature) => {
    const notBelow = FEATURE_TIERS.slice(i).flat().filter((f) => f !== feature);
    return {
      name: `feature-order:${feature}`,
      comment: `${feature} (tier ${i + 1}) may import only the features of lower tiers: not ${notBelow.join(", ")}`,
      severity: "error",
      from: { path: `^server/${feature}/` },
      to: { path: notBelow.length ? folders(notBelow) : "^$" },
    };
  }),
);

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No module may reach itself through its imports.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "db-below-server",
      comment: "db/ is the bottom layer: it imports nothing from server/ or cli/ (features hand it what it runs, e.g. data migrations).",
      severity: "error",
      from: { path: "^db/" },
      to: { path: "^(server|cli)/" },
    },
    {
      name: "schema-is-declarations",
      comment:
        "db/schema/ declares tables, one file per feature (docs/architecture.md#which-feature-owns-which-table): it imports the other schema files its foreign keys point at, db/values.ts and db/engine.ts (an expression spelled per engine), nothing that runs queries.",
      severity: "error",
      from: { path: "^db/schema/" },
      to: { path: "^(db/(?!schema/|values\\.ts$|engine\\.ts$)|server/|cli/)" },
    },
    {
      name: "lib-is-pure",
      comment: "server/lib/ holds the helpers every feature shares: it imports only db/ and itself.",
      severity: "error",
      from: { path: "^server/lib/" },
      to: { path: "^(server/(?!lib/)|cli/)" },
    },
    {
      name: "kernel-knows-no-feature",
      comment: "The kernel (HTTP, auth, logs, metrics, runtime, config, backups) knows no business feature and no composition root.",
      severity: "error",
      from: { path: [folders(KERNEL), files(KERNEL_FILES)] },
      to: { path: [folders(FEATURES), files(ROOT_FILES), "^cli/"] },
    },
    {
      name: "features-below-roots",
      comment: "Features do not import the composition roots (server/app.ts, serve.ts, …, cli/).",
      severity: "error",
      from: { path: folders(FEATURES) },
      to: { path: [files(ROOT_FILES), "^cli/"] },
    },
    {
      name: "one-ledger-writer",
      comment:
        "The journal is written by recordChange (server/changes/) from a change's ledger effects; only the ledger itself (its data migration) imports the writer, server/ledger/post.ts.",
      severity: "error",
      from: { path: "^server/", pathNot: "^server/(changes|ledger)/" },
      to: { path: "^server/ledger/post\\.ts$" },
    },
    {
      name: "server-not-cli",
      comment: "Nothing under server/ imports cli/.",
      severity: "error",
      from: { path: "^server/" },
      to: { path: "^cli/" },
    },
    {
      name: "every-folder-declared",
      comment: "Every folder of server/ is in a layer: a new one is declared in .dependency-cruiser.cjs (and docs/architecture.md).",
      severity: "error",
      from: { path: "^(server|cli|db)/" },
      to: { path: "^server/[^/]+/", pathNot: [folders(["lib"]), folders(KERNEL), folders(FEATURES)] },
    },
    ...featureOrder,
    {
      name: "not-to-unresolvable",
      comment: "Every import resolves.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)node_modules/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    combinedDependencies: false,
    // package.json "exports" subpaths (@elysiajs/swagger/utils)
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
