/// A table a feature publishes to Realtime (`public.<name>`, as the apps subscribe to it), with the columns its
/// changes carry — the only ones a subscriber sees and may filter on.
public struct RealtimeTable: Sendable {
    public struct Column: Sendable {
        public var name: String
        /// PostgreSQL's name for its type (`text`, `timestamptz`), as Supabase lists it in `columns`.
        public var type: String

        public init(_ name: String, _ type: String) {
            self.name = name
            self.type = type
        }
    }

    public var name: String
    public var columns: [Column]

    public init(name: String, columns: [Column]) {
        self.name = name
        self.columns = columns
    }
}
