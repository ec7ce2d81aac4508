import "./globals.css";

export const metadata = { title: "wterm-wasm consumer: next" };

export default function RootLayout({ children }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
