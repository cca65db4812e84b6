import Foundation

/// Encoded as an object with one key naming the type, so every value decodes to exactly what was encoded
/// whatever the encoder (JSON cannot tell `1` from `1.0` or `true`, nor a date from a number):
/// `{"string":"hi"}`, `{"integer":3}`, `{"double":3}`, `{"bool":true}`, `{"date":788918400}` (seconds since
/// 2001-01-01), `{"data":"AAE="}` (base64), `{"null":true}`, `{"array":[…]}`, `{"dictionary":{…}}`.
extension PropertyListValue: Codable {
    private enum CodingKeys: String, CodingKey {
        case string, bool, integer, unsignedInteger, double, date, data, null, array, dictionary
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "a property-list value has exactly one type key"))
        }
        switch key {
        case .string: self = .string(try container.decode(String.self, forKey: key))
        case .bool: self = .bool(try container.decode(Bool.self, forKey: key))
        case .integer: self = .integer(try container.decode(Int64.self, forKey: key))
        case .unsignedInteger: self = .unsignedInteger(try container.decode(UInt64.self, forKey: key))
        case .double: self = .double(try container.decode(Double.self, forKey: key))
        case .date: self = .date(Date(timeIntervalSinceReferenceDate: try container.decode(Double.self, forKey: key)))
        case .data:
            guard let data = Data(base64Encoded: try container.decode(String.self, forKey: key)) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not base64")
            }
            self = .data(data)
        case .null: self = .null
        case .array: self = .array(try container.decode([PropertyListValue].self, forKey: key))
        case .dictionary: self = .dictionary(try container.decode([String: PropertyListValue].self, forKey: key))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .string(let string): try container.encode(string, forKey: .string)
        case .bool(let bool): try container.encode(bool, forKey: .bool)
        case .integer(let int): try container.encode(int, forKey: .integer)
        case .unsignedInteger(let uint): try container.encode(uint, forKey: .unsignedInteger)
        case .double(let double): try container.encode(double, forKey: .double)
        case .date(let date): try container.encode(date.timeIntervalSinceReferenceDate, forKey: .date)
        case .data(let data): try container.encode(data.base64EncodedString(), forKey: .data)
        case .null: try container.encode(true, forKey: .null)
        case .array(let values): try container.encode(values, forKey: .array)
        case .dictionary(let values): try container.encode(values, forKey: .dictionary)
        }
    }
}
