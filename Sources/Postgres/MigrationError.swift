/// Why migrations could not be applied; start-up stops with this message.
public enum MigrationError: Error, Equatable, CustomStringConvertible {
    case unreadableDirectory(String)
    case invalidFileName(String)
    case duplicateVersion(Int)
    /// An applied migration's file changed since it was applied.
    case checksumMismatch(version: Int, name: String)
    /// The database has a migration this build does not know (a newer Pier ran here).
    case unknownAppliedVersion(Int)
    case failed(version: Int, name: String, PostgresError)

    public var description: String {
        switch self {
        case .unreadableDirectory(let path): "cannot read migrations directory \(path)"
        case .invalidFileName(let name): "migration file \(name) is not named NNNN_description.sql"
        case .duplicateVersion(let version): "two migration files have version \(version)"
        case .checksumMismatch(let version, let name):
            "migration \(version) (\(name)) was changed after it was applied; restore it and add a new migration instead"
        case .unknownAppliedVersion(let version): "the database has migration \(version), which this build does not know"
        case .failed(let version, let name, let error): "migration \(version) (\(name)) failed: \(error)"
        }
    }
}
