/**
 * Telephony (issue 39): phone numbers on personas, and the carriers' calls. Other areas and the
 * composition root reach it only through this file.
 */

export {
  type CarrierCredentials,
  openCredentials,
} from './phone-numbers/carrier-credentials';
export {
  CARRIERS,
  type Carrier,
  PhoneNumber,
  PhoneNumberSchema,
  phoneNumberCredentialsAad,
} from './phone-numbers/phone-number.entity';
export { mountPhoneNumberRoutes } from './phone-numbers/phone-numbers.routes';
export {
  findPhoneNumber,
  inboundUrlOf,
  publicBaseUrl,
  statusCallbackUrlOf,
} from './phone-numbers/phone-numbers.service';
