import { type Connection, isGrpcServiceError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Logger } from 'pino';
import type { SearchAttributeTypeName } from './search-attributes';

const IndexedValueType = temporal.api.enums.v1.IndexedValueType;

const INDEXED_VALUE_TYPES: Record<SearchAttributeTypeName, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Text: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Double: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Datetime: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KeywordList: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

// gRPC status codes (kept local to avoid depending on @grpc/grpc-js directly).
const GRPC_ALREADY_EXISTS = 6;
const GRPC_PERMISSION_DENIED = 7;
const GRPC_UNIMPLEMENTED = 12;

/**
 * Adds missing custom search attributes to a namespace on an external Temporal (TEMPORAL_ADDRESS).
 * Where the operator API is not allowed (e.g. Temporal Cloud) it logs a warning and carries on; register
 * them there with `tcld` or the Cloud UI instead.
 */
export async function registerSearchAttributes(
  connection: Connection,
  namespace: string,
  attrs: Record<string, SearchAttributeTypeName>,
  logger: Logger,
): Promise<void> {
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    for (const [name, type] of Object.entries(attrs)) {
      const existing = customAttributes[name];
      if (existing !== undefined) {
        if (existing !== INDEXED_VALUE_TYPES[type]) {
          logger.warn(
            { namespace, name, expected: type, actual: IndexedValueType[existing] },
            'Search attribute type differs',
          );
        }
        continue;
      }
      try {
        await connection.operatorService.addSearchAttributes({
          namespace,
          searchAttributes: { [name]: INDEXED_VALUE_TYPES[type] },
        });
        logger.info({ namespace, name, type }, 'Registered search attribute');
      } catch (err) {
        if (!(isGrpcServiceError(err) && err.code === GRPC_ALREADY_EXISTS)) throw err;
      }
    }
  } catch (err) {
    if (isGrpcServiceError(err) && (err.code === GRPC_PERMISSION_DENIED || err.code === GRPC_UNIMPLEMENTED)) {
      logger.warn(
        { namespace, attributes: attrs, err: err.details },
        'Cannot register search attributes on this Temporal server; register them manually',
      );
      return;
    }
    throw err;
  }
}
