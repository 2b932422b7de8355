/** Browser entry: renders the dashboard into #app. */
import { render } from "preact";
import { App } from "./app";
import "./styles/base.css";
import "./styles/components.css";

const root = document.getElementById("app");
if (root) render(<App />, root);
