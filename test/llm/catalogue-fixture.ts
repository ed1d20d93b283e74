// A small models.dev-format catalogue for refresh tests (in-process and end to end).

/** A models.dev-format catalogue with one provider the snapshot does not have. */
export function acmeCatalogue(api: string) {
  return {
    acme: {
      id: "acme",
      name: "Acme AI",
      env: ["ACME_API_KEY"],
      npm: "@ai-sdk/openai-compatible",
      api,
      doc: "https://acme.example/docs",
      models: {
        "acme-coder": {
          id: "acme-coder",
          name: "Acme Coder",
          attachment: false,
          reasoning: true,
          temperature: true,
          tool_call: true,
          knowledge: "2025-01",
          release_date: "2025-06-01",
          last_updated: "2025-06-01",
          modalities: { input: ["text"], output: ["text"] },
          open_weights: false,
          cost: { input: 1, output: 4, cache_read: 0.1 },
          limit: { context: 256_000, output: 32_000 },
        },
      },
    },
  }
}
