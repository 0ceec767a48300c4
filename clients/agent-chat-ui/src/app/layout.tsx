import type { Metadata } from "next";
import "./globals.css";
import "@fontsource-variable/inter";
import React from "react";
import { NuqsAdapter } from "nuqs/adapters/next/app";

export const metadata: Metadata = {
  title: "Agent Chat",
  description: "Agent Chat UX by LangChain",
};

export default function RootLayout({
  children,
}: Readonly<{
  children: React.ReactNode;
}>) {
  return (
    <html lang="en">
      <body style={{ fontFamily: "'Inter Variable', sans-serif" }}>
        <NuqsAdapter>{children}</NuqsAdapter>
      </body>
    </html>
  );
}
