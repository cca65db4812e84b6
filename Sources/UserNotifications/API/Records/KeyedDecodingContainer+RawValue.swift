extension KeyedDecodingContainer {
    /// Decodes an enum stored as its raw value; an unknown raw value is a data-corruption error.
    func decodeRawValue<T: RawRepresentable>(_ type: T.Type, forKey key: Key) throws -> T where T.RawValue: Decodable {
        let raw = try decode(T.RawValue.self, forKey: key)
        guard let value = T(rawValue: raw) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "unknown \(T.self) raw value \(raw)")
        }
        return value
    }
}
