/// One row of a result: values in text format, read by column name or position.
public struct PostgresRow: Sendable {
    public let columns: [String]
    public let values: [String?]

    public init(columns: [String], values: [String?]) {
        self.columns = columns
        self.values = values
    }

    private func index(of column: String) throws -> Int {
        guard let index = columns.firstIndex(of: column) else { throw PostgresError.missingColumn(column) }
        return index
    }

    /// The column read as `T`; a `NULL` is an error (use the optional overload where NULL is allowed).
    public func decode<T: PostgresDecodable>(_ type: T.Type, _ column: String) throws -> T {
        let index = try index(of: column)
        guard let text = values[index], let value = T(postgresText: text) else {
            throw PostgresError.decoding(column: column, expected: "\(T.self)", value: values[index])
        }
        return value
    }

    /// The column read as `T`, or nil for `NULL`.
    public func decode<T: PostgresDecodable>(_ type: T?.Type, _ column: String) throws -> T? {
        let index = try index(of: column)
        guard let text = values[index] else { return nil }
        guard let value = T(postgresText: text) else {
            throw PostgresError.decoding(column: column, expected: "\(T.self)", value: text)
        }
        return value
    }

    /// True when the column is `NULL`.
    public func isNull(_ column: String) throws -> Bool { values[try index(of: column)] == nil }
}
