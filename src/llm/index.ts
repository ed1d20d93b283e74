// llm/ owns everything between wright and a model provider: the bundled catalog, which
// providers are usable (config + stored keys + environment), the user's key store
// (auth.json) and the subscription sign-ins (login/: GitHub Copilot, ChatGPT), `provider/model` resolution, one streamed step through the AI SDK, token cost,
// and turning provider failures into named errors.
// It knows tool *schemas* only and never runs a tool; it never retries (the session loop does).
// Imports only config, protocol and util.
export type {
  ConfigCost,
  LLMConfigInput,
  ModelConfigInput,
  ModelCost,
  ModelInfo,
  ModelRef,
  KeySource,
  ProviderKeys,
  ProviderConfigInput,
  ProviderInfo,
  Providers,
  ResolvedModel,
} from "./types"
export {
  catalogProviderIDs,
  catalogProviders,
  loadCatalog,
  DEFAULT_CATALOG_URL,
  type Catalog,
  type CatalogModel,
  type CatalogProvider,
  type LoadedCatalog,
} from "./catalog"
export { refreshCatalog, CatalogRefreshError, type RefreshResult } from "./catalog-refresh"
export { suggest } from "./suggest"
export { createProviders, sortModels, type CreateProvidersInput } from "./providers"
export {
  authFiles,
  loadKeys,
  maskKey,
  readAuthFile,
  readLogin,
  userCredentials,
  writeEntry,
  writeKey,
  checkProviderID,
  LOGIN_PROVIDERS,
  type Credentials,
  type OAuthEntry,
  type StoredKey,
} from "./auth"
export { startCopilotLogin, finishCopilotLogin, type DeviceCode } from "./login/copilot"
export { startChatGPTLogin, type ChatGPTLogin } from "./login/chatgpt"
export { stream, streamBatches, INVALID_TOOL, type StreamEvent, type StreamInput, type ToolSchema } from "./stream"
export { classifyError } from "./error"
export { builtinVariants, variantError, variantOptions, withConfigVariants, type Variants } from "./variants"
export { computeCost, maxOutputTokens, usageToTokens, OUTPUT_TOKEN_MAX, type TokenUsage } from "./cost"
export { ProviderTimeoutError, DEFAULT_CHUNK_TIMEOUT, DEFAULT_HEADER_TIMEOUT, userAgent } from "./fetch"
