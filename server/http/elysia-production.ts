/**
 * Elysia decides once, when it loads, whether it runs "in production" (NODE_ENV). Outside
 * production it builds every validation error's message from a pretty-printed copy of the
 * whole body: seconds and gigabytes for a wide or deep one, and the body echoed back. Kontor
 * never wants that, so every entry point imports this module before anything imports Elysia,
 * and the kernel refuses to start when it came too late (assertElysiaQuietErrors).
 */
process.env.NODE_ENV = "production";
