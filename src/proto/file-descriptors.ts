// The file descriptors that server reflection hands to clients. proto-loader builds the
// FileDescriptorProtos of a package definition with protobufjs, which merges the files of a package
// into one `<package>.proto` and departs from what protoc writes in two ways that clients building
// descriptors from them (grpcurl, through protobuf-go) refuse:
// - `dependency` is never filled in (grpc/grpc-node#2595), so a type from another file is unknown:
//   `cannot resolve type: "*.google.protobuf.Timestamp" not found`;
// - the entry message of a `map<K, V> statuses` field is named `Statuses`, not `StatusesEntry`:
//   `is an invalid map: incorrect implicit map entry name`.
// This module repairs both, and writes references fully qualified, as protoc does.
import {
  type AnyDefinition,
  type EnumTypeDefinition,
  loadSync,
  type MessageTypeDefinition,
  type PackageDefinition,
} from '@grpc/proto-loader';
import { z } from 'zod';

const FieldSchema = z.looseObject({
  name: z.string(),
  typeName: z.string().optional(),
  extendee: z.string().optional(),
});
const EnumSchema = z.looseObject({ name: z.string() });

/** The parts of descriptor.proto that hold names and references; everything else passes through. */
const MessageSchema = z.looseObject({
  name: z.string(),
  field: z.array(FieldSchema).optional(),
  extension: z.array(FieldSchema).optional(),
  enumType: z.array(EnumSchema).optional(),
  options: z.looseObject({ mapEntry: z.boolean().optional() }).optional(),
  get nestedType() {
    return z.array(MessageSchema).optional();
  },
});

const FileSchema = z.looseObject({
  name: z.string(),
  package: z.string().optional(),
  dependency: z.array(z.string()).optional(),
  messageType: z.array(MessageSchema).optional(),
  enumType: z.array(EnumSchema).optional(),
  extension: z.array(FieldSchema).optional(),
  service: z
    .array(
      z.looseObject({
        name: z.string(),
        method: z.array(z.looseObject({ inputType: z.string(), outputType: z.string() })).optional(),
      }),
    )
    .optional(),
});

type FileDescriptor = z.infer<typeof FileSchema>;
type MessageDescriptor = z.infer<typeof MessageSchema>;

interface FileCodec {
  decode(bytes: Buffer): FileDescriptor;
  encode(file: FileDescriptor): Buffer;
}

let codec: FileCodec | undefined;

/**
 * google.protobuf.FileDescriptorProto through proto-loader itself. Unset fields stay unset (no
 * defaults) because descriptor.proto is proto2: a filled-in `oneofIndex: 0` would put every field in
 * a oneof.
 */
function fileCodec(): FileCodec {
  if (codec !== undefined) return codec;
  const definition = loadSync('google/protobuf/descriptor.proto', { longs: String, enums: String })[
    'google.protobuf.FileDescriptorProto'
  ];
  if (definition === undefined || !isMessageDefinition(definition))
    throw new Error(
      'google.protobuf.FileDescriptorProto missing from the descriptor.proto bundled with protobufjs',
    );
  const { serialize, deserialize } = definition;
  codec = {
    decode: (bytes) => FileSchema.parse(deserialize(bytes)),
    encode: (file) => serialize(file),
  };
  return codec;
}

/** `.a.b.C` → `.a.b`; the root scope is ''. */
function parentScope(scope: string): string {
  return scope.slice(0, Math.max(0, scope.lastIndexOf('.')));
}

function packageScope(file: FileDescriptor): string {
  return file.package === undefined || file.package === '' ? '' : `.${file.package}`;
}

/** protoc's name for the entry message of a map field: `resource_versions` → `ResourceVersionsEntry`. */
function mapEntryName(field: string): string {
  return `${field
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Entry`;
}

/** Renames each map entry message, and the reference of its field, the way protoc names it. */
function nameMapEntries(message: MessageDescriptor): MessageDescriptor {
  const entries = new Map(
    (message.field ?? []).flatMap((field) => {
      const entry = message.nestedType?.find((nested) => nested.name === field.typeName);
      return entry?.options?.mapEntry === true ? [[entry.name, mapEntryName(field.name)] as const] : [];
    }),
  );
  return {
    ...message,
    field: message.field?.map((field) => {
      const renamed = entries.get(field.typeName ?? '');
      return renamed === undefined ? field : { ...field, typeName: renamed };
    }),
    nestedType: message.nestedType?.map((nested) =>
      nameMapEntries({ ...nested, name: entries.get(nested.name) ?? nested.name }),
    ),
  };
}

/** Every message and enum each file declares, by fully qualified name (`.pkg.Outer.Inner`). */
function declaringFiles(files: readonly FileDescriptor[]): Map<string, string> {
  const declared = new Map<string, string>();
  const visit = (file: string, scope: string, messages: readonly MessageDescriptor[]) => {
    for (const message of messages) {
      const name = `${scope}.${message.name}`;
      declared.set(name, file);
      for (const nested of message.enumType ?? []) declared.set(`${name}.${nested.name}`, file);
      visit(file, name, message.nestedType ?? []);
    }
  };
  for (const file of files) {
    const scope = packageScope(file);
    for (const enumType of file.enumType ?? []) declared.set(`${scope}.${enumType.name}`, file.name);
    visit(file.name, scope, file.messageType ?? []);
  }
  return declared;
}

/**
 * Declares the imports of `file` and qualifies its references. A relative reference is looked up in
 * the innermost enclosing scope first, then outwards to the root, the scoping rule of descriptor.proto.
 */
function link(file: FileDescriptor, declared: ReadonlyMap<string, string>): FileDescriptor {
  const imports = new Set<string>();
  const qualify = (reference: string, scope: string): string => {
    let candidate = reference;
    if (!reference.startsWith('.')) {
      for (let outer = scope; ; outer = parentScope(outer)) {
        candidate = `${outer}.${reference}`;
        if (declared.has(candidate) || outer === '') break;
      }
    }
    const declaring = declared.get(candidate);
    if (declaring === undefined) throw new Error(`${file.name}: cannot resolve ${reference} from ${scope}`);
    if (declaring !== file.name) imports.add(declaring);
    return candidate;
  };
  const qualifyFields = (fields: ReadonlyArray<z.infer<typeof FieldSchema>> | undefined, scope: string) =>
    fields?.map((field) => ({
      ...field,
      ...(field.typeName === undefined ? {} : { typeName: qualify(field.typeName, scope) }),
      ...(field.extendee === undefined ? {} : { extendee: qualify(field.extendee, scope) }),
    }));
  const qualifyMessage = (message: MessageDescriptor, scope: string): MessageDescriptor => {
    const name = `${scope}.${message.name}`;
    return {
      ...message,
      field: qualifyFields(message.field, name),
      extension: qualifyFields(message.extension, name),
      nestedType: message.nestedType?.map((nested) => qualifyMessage(nested, name)),
    };
  };
  const scope = packageScope(file);
  const linked: FileDescriptor = {
    ...file,
    messageType: file.messageType?.map((message) => qualifyMessage(message, scope)),
    extension: qualifyFields(file.extension, scope),
    service: file.service?.map((service) => ({
      ...service,
      method: service.method?.map((method) => ({
        ...method,
        inputType: qualify(method.inputType, `${scope}.${service.name}`),
        outputType: qualify(method.outputType, `${scope}.${service.name}`),
      })),
    })),
  };
  const declaredImports = file.dependency ?? [];
  const missing = [...imports].filter((name) => !declaredImports.includes(name)).sort();
  return { ...linked, dependency: [...declaredImports, ...missing] };
}

/**
 * The same package definition with every FileDescriptorProto as protoc would write it: importing the
 * files it references, references fully qualified, map entries named `<Field>Entry`.
 * Definitions loaded separately may carry a file of the same name (`google_protobuf.proto`); they must
 * agree, as server reflection serves one file per name.
 */
export function repairFileDescriptors(definition: PackageDefinition): PackageDefinition {
  const { decode, encode } = fileCodec();
  const files = new Map<string, { bytes: Buffer; file: FileDescriptor }>();
  const namedBy = new Map<Buffer, string>();
  for (const bytes of new Set(Object.values(definition).flatMap(fileDescriptorProtos))) {
    const decoded = decode(bytes);
    const file = { ...decoded, messageType: decoded.messageType?.map(nameMapEntries) };
    const seen = files.get(file.name);
    if (seen === undefined) files.set(file.name, { bytes, file });
    else if (!seen.bytes.equals(bytes))
      throw new Error(`two different descriptors of ${file.name}: load the files of a package together`);
    namedBy.set(bytes, file.name);
  }
  const declared = declaringFiles([...files.values()].map(({ file }) => file));
  const linked = new Map([...files].map(([name, { file }]) => [name, encode(link(file, declared))]));
  const relink = (protos: Buffer[]) => protos.map((bytes) => linked.get(namedBy.get(bytes) ?? '') ?? bytes);
  return Object.fromEntries(
    Object.entries(definition).map(([name, entry]) => [name, relinkDefinition(entry, relink)]),
  );
}

/** The descriptors a definition carries: its own for a message or enum, its methods' for a service. */
function fileDescriptorProtos(entry: AnyDefinition): Buffer[] {
  if (isTypeDefinition(entry)) return entry.fileDescriptorProtos;
  return Object.values(entry).flatMap((method) => [
    ...method.requestType.fileDescriptorProtos,
    ...method.responseType.fileDescriptorProtos,
  ]);
}

function relinkDefinition(entry: AnyDefinition, relink: (protos: Buffer[]) => Buffer[]): AnyDefinition {
  if (isTypeDefinition(entry)) return { ...entry, fileDescriptorProtos: relink(entry.fileDescriptorProtos) };
  return Object.fromEntries(
    Object.entries(entry).map(([name, method]) => [
      name,
      {
        ...method,
        requestType: {
          ...method.requestType,
          fileDescriptorProtos: relink(method.requestType.fileDescriptorProtos),
        },
        responseType: {
          ...method.responseType,
          fileDescriptorProtos: relink(method.responseType.fileDescriptorProtos),
        },
      },
    ]),
  );
}

function isMessageDefinition(entry: AnyDefinition): entry is MessageTypeDefinition<object, object> {
  return entry.format === 'Protocol Buffer 3 DescriptorProto';
}

function isTypeDefinition(
  entry: AnyDefinition,
): entry is MessageTypeDefinition<object, object> | EnumTypeDefinition {
  return isMessageDefinition(entry) || entry.format === 'Protocol Buffer 3 EnumDescriptorProto';
}
