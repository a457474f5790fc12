declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const path: string;
  export default path;
}
declare module "swagger-ui-dist/swagger-ui.css" {
  const path: string;
  export default path;
}
declare module "*/viewer.js" {
  const path: string;
  export default path;
}
