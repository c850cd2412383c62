import protobuf from 'protobufjs';

/**
 * The subset of ONNX's protobuf schema (onnx/onnx.proto, proto2) that paralens writes and
 * reads: models, graphs (a subgraph is an attribute of If), nodes, attributes, tensors of
 * every element type, value infos. Message and field names and numbers are those of
 * onnx.proto; fields paralens never uses are left out (protobuf readers skip unknown fields,
 * so the bytes are a valid ModelProto, and a model with more fields decodes). Import also
 * reads what it must refuse: tensors stored outside the file (data_location, external_data),
 * sparse initializers, sequence and map types. src/io/onnx/scan.ts walks the same messages
 * over the raw bytes, bounding counts before protobufjs builds any object.
 */
const ONNX_PROTO = `
syntax = "proto2";
package onnx;

message AttributeProto {
  enum AttributeType {
    UNDEFINED = 0; FLOAT = 1; INT = 2; STRING = 3; TENSOR = 4; GRAPH = 5;
    FLOATS = 6; INTS = 7; STRINGS = 8; TENSORS = 9; GRAPHS = 10;
  }
  optional string name = 1;
  optional string doc_string = 13;
  optional AttributeType type = 20;
  optional float f = 2;
  optional int64 i = 3;
  optional bytes s = 4;
  optional TensorProto t = 5;
  optional GraphProto g = 6;
  repeated float floats = 7;
  repeated int64 ints = 8;
  repeated bytes strings = 9;
  repeated TensorProto tensors = 10;
  repeated GraphProto graphs = 11;
}

message ValueInfoProto {
  optional string name = 1;
  optional TypeProto type = 2;
  optional string doc_string = 3;
}

message NodeProto {
  repeated string input = 1;
  repeated string output = 2;
  optional string name = 3;
  optional string op_type = 4;
  optional string domain = 7;
  repeated AttributeProto attribute = 5;
  optional string doc_string = 6;
}

message StringStringEntryProto {
  optional string key = 1;
  optional string value = 2;
}

message ModelProto {
  optional int64 ir_version = 1;
  repeated OperatorSetIdProto opset_import = 8;
  optional string producer_name = 2;
  optional string producer_version = 3;
  optional string domain = 4;
  optional int64 model_version = 5;
  optional string doc_string = 6;
  optional GraphProto graph = 7;
  repeated StringStringEntryProto metadata_props = 14;
}

message GraphProto {
  repeated NodeProto node = 1;
  optional string name = 2;
  repeated TensorProto initializer = 5;
  optional string doc_string = 10;
  repeated ValueInfoProto input = 11;
  repeated ValueInfoProto output = 12;
  repeated ValueInfoProto value_info = 13;
  repeated SparseTensorProto sparse_initializer = 15;
}

message SparseTensorProto {
  optional TensorProto values = 1;
  optional TensorProto indices = 2;
  repeated int64 dims = 3;
}

message TensorProto {
  enum DataType {
    UNDEFINED = 0; FLOAT = 1; UINT8 = 2; INT8 = 3; UINT16 = 4; INT16 = 5; INT32 = 6;
    INT64 = 7; STRING = 8; BOOL = 9; FLOAT16 = 10; DOUBLE = 11; UINT32 = 12; UINT64 = 13;
    COMPLEX64 = 14; COMPLEX128 = 15; BFLOAT16 = 16;
  }
  repeated int64 dims = 1;
  optional int32 data_type = 2;
  repeated float float_data = 4 [packed = true];
  repeated int32 int32_data = 5 [packed = true];
  repeated bytes string_data = 6;
  repeated int64 int64_data = 7 [packed = true];
  repeated uint64 uint64_data = 11 [packed = true];
  optional string name = 8;
  optional string doc_string = 12;
  optional bytes raw_data = 9;
  repeated double double_data = 10 [packed = true];
  repeated StringStringEntryProto external_data = 13;
  optional int32 data_location = 14;
}

message TensorShapeProto {
  message Dimension {
    oneof value {
      int64 dim_value = 1;
      string dim_param = 2;
    };
    optional string denotation = 3;
  };
  repeated Dimension dim = 1;
}

message TypeProto {
  message Tensor {
    optional int32 elem_type = 1;
    optional TensorShapeProto shape = 2;
  }
  message Sequence {
    optional TypeProto elem_type = 1;
  }
  message Map {
    optional int32 key_type = 1;
    optional TypeProto value_type = 2;
  }
  oneof value {
    Tensor tensor_type = 1;
    Sequence sequence_type = 4;
    Map map_type = 5;
  }
  optional string denotation = 6;
}

message OperatorSetIdProto {
  optional string domain = 1;
  optional int64 version = 2;
}
`;

let root: protobuf.Root | undefined;

/** The parsed schema (parsed once). */
export function onnxSchema(): protobuf.Root {
  root ??= protobuf.parse(ONNX_PROTO, { keepCase: true }).root;
  return root;
}

/** TensorProto.DataType values by name, and their names by value. */
export const DATA_TYPES = {
  float: 1,
  uint8: 2,
  int8: 3,
  uint16: 4,
  int16: 5,
  int32: 6,
  int64: 7,
  string: 8,
  bool: 9,
  float16: 10,
  double: 11,
  uint32: 12,
  uint64: 13,
  complex64: 14,
  complex128: 15,
  bfloat16: 16,
} as const;
export type ElemType = keyof typeof DATA_TYPES;
export const ELEM_TYPE_OF: ReadonlyMap<number, ElemType> = new Map(Object.entries(DATA_TYPES).map(([k, v]) => [v, k as ElemType]));
export const ONNX_FLOAT = DATA_TYPES.float;
export const ONNX_INT64 = DATA_TYPES.int64;
/** Whether values of this element type are real numbers that carry gradients. */
export const isFloatType = (t: ElemType): boolean => t === 'float' || t === 'double' || t === 'float16' || t === 'bfloat16';
/** AttributeProto.AttributeType values used here. */
export const ATTR = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, GRAPH: 5, FLOATS: 6, INTS: 7 } as const;
