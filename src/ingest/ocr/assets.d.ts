/** Files the OCR core embeds in the executable (`with { type: "file" }` gives their path). */
declare module "tesseract.js-core/tesseract-core-simd-lstm.wasm" {
  const path: string;
  export default path;
}
declare module "@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz" {
  const path: string;
  export default path;
}
