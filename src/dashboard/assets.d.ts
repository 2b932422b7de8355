// The built dashboard files, imported `with { type: "text" }` by routes.ts: strings in the bundle.
declare module "*/dist/app.js" {
  const text: string;
  export default text;
}
