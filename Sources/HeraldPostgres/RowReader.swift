import HeraldStore
import PostgresNIO

/// Reads a row's columns in order, each as the type asked for.
struct RowReader {
    private var cells: PostgresRow.Iterator

    init(_ row: PostgresRow) {
        cells = row.makeIterator()
    }

    mutating func next<Value: PostgresDecodable>(_: Value.Type = Value.self) throws -> Value {
        guard let cell = cells.next() else { throw StoreError(.corrupt, "a row has fewer columns than the store reads") }
        return try cell.decode(Value.self)
    }
}
