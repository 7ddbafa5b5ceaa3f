"use server";

import { redirect } from "next/navigation";
import { postEvent } from "./api.js";

// A server action: the browser posts the form to this Next.js server, which calls the API
// over the internal network. The browser never needs the API's address (or CORS).
export async function addEvent(formData) {
  const message = String(formData.get("message") ?? "").trim();
  const error = message ? await postEvent(message) : "Type a message first.";
  // Redirect after POST: the page re-renders with fresh data and a reload does not resubmit.
  redirect(error ? `/?error=${encodeURIComponent(error)}` : "/");
}
