import Foundation
import NIOCore
import PostgresNIO

/// A one-dimensional array parameter whose elements may be NULL, written in PostgreSQL's binary array format
/// (PostgresNIO's own array parameters have no NULLs). A batch of notifications goes to the server as one such array
/// per column.
struct ArrayParameter: PostgresDynamicTypeEncodable, Sendable {
    private enum Elements: Sendable {
        case bytea([Data])
        case text([String?])
        case int8([Int64?])
        case int4([Int32?])
        case float8([Double?])
    }

    private let elements: Elements

    static func bytea(_ values: [Data]) -> ArrayParameter { ArrayParameter(elements: .bytea(values)) }
    static func text(_ values: [String?]) -> ArrayParameter { ArrayParameter(elements: .text(values)) }
    static func int8(_ values: [Int64?]) -> ArrayParameter { ArrayParameter(elements: .int8(values)) }
    static func int4(_ values: [Int32?]) -> ArrayParameter { ArrayParameter(elements: .int4(values)) }
    static func float8(_ values: [Double?]) -> ArrayParameter { ArrayParameter(elements: .float8(values)) }

    var psqlType: PostgresDataType {
        switch elements {
        case .bytea: .byteaArray
        case .text: .textArray
        case .int8: .int8Array
        case .int4: .int4Array
        case .float8: .float8Array
        }
    }

    var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        switch elements {
        case .bytea(let values):
            write(values, as: .bytea, into: &buffer) { value, buffer in buffer.writeBytes(value) }
        case .text(let values):
            write(values, as: .text, into: &buffer) { value, buffer in buffer.writeString(value) }
        case .int8(let values):
            write(values, as: .int8, into: &buffer) { value, buffer in buffer.writeInteger(value) }
        case .int4(let values):
            write(values, as: .int4, into: &buffer) { value, buffer in buffer.writeInteger(value) }
        case .float8(let values):
            write(values, as: .float8, into: &buffer) { value, buffer in buffer.writeInteger(value.bitPattern) }
        }
    }

    /// The header (dimensions, whether any element is NULL, the element type, the length and lower bound of the one
    /// dimension), then each element as its length (-1 for NULL) and bytes, integers big-endian.
    private func write<Value>(
        _ values: [Value?], as elementType: PostgresDataType, into buffer: inout ByteBuffer, _ writeValue: (Value, inout ByteBuffer) -> Void
    ) {
        buffer.writeInteger(Int32(values.isEmpty ? 0 : 1))
        buffer.writeInteger(Int32(values.contains { $0 == nil } ? 1 : 0))
        buffer.writeInteger(elementType.rawValue)
        guard !values.isEmpty else { return }
        buffer.writeInteger(Int32(values.count))
        buffer.writeInteger(Int32(1))
        for value in values {
            guard let value else {
                buffer.writeInteger(Int32(-1))
                continue
            }
            let lengthIndex = buffer.writerIndex
            buffer.writeInteger(Int32(0))
            writeValue(value, &buffer)
            buffer.setInteger(Int32(buffer.writerIndex - lengthIndex - 4), at: lengthIndex)
        }
    }
}
