/** Browser entry: renders the dashboard into #app. */
import { render } from "preact";
import { App } from "./app";
import { applyLang } from "./i18n";
import "./styles/base.css";
import "./styles/components.css";

applyLang();
const root = document.getElementById("app");
if (root) render(<App />, root);
