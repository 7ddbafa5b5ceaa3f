import "./globals.css";

export const metadata = {
  title: "Full-stack example",
  description: "Next.js frontend, FastAPI API, PostgreSQL database",
};

export default function RootLayout({ children }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
