import { createRoot } from "react-dom/client";
import "uplot/dist/uPlot.min.css";
import "./styles.css";
import { App } from "./App";

const saved = localStorage.getItem("studio-theme");
document.documentElement.dataset.theme = saved ?? (matchMedia("(prefers-color-scheme: light)").matches ? "light" : "dark");
createRoot(document.getElementById("root")!).render(<App />);
