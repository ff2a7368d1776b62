export { PROVIDER_PRESETS, type ProviderApi, type ProviderKind } from './presets';
export { Provider, ProviderSchema } from './provider.entity';
export {
  accountProviders,
  type ProviderCredentials,
  providerCredentials,
  providerCredentialsById,
  providerReferenceProblems,
} from './provider-access';
export { mountProviderRoutes } from './providers.routes';
export { providerAad } from './providers.service';
export { PLATFORM_PROVIDER, type ProviderUse, providerUsage, recordProviderUse } from './usage';
