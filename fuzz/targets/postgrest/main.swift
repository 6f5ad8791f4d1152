import Basics
import Parsing
import PostgRESTFormat

// A `/rest/v1` request as the Supabase clients send it, on arbitrary bytes: the first line is the query string
// (`name=value` pairs joined by `&`, taken as they come), the rest the body. Properties: no crash; a query accepted is
// bounded (at most 16 filters, lists of at most 500 values, plain column names); rows accepted are at most 500, each
// with a value for every column, the columns plain names and distinct. The body is also read as the auth server's
// (a sign-up's, a refresh's), and as `wave_checkin_counts`' arguments: what is accepted is at most 500 distinct sorted
// ids of 1 to 200 bytes from a body within its bound, and the same ids written again — reversed, repeated, padded —
// are the same key (the answers held are keyed by what a body means, never by its bytes).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let newline = bytes.firstIndex(of: 0x0A) ?? bytes.count
    let line = String(decoding: bytes[..<newline], as: UTF8.self)
    let body = newline < bytes.count ? Array(bytes[(newline + 1)...]) : []
    let pairs = line.split(separator: "&").map { pair -> (name: String, value: String) in
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
    }
    var columns: [String]?
    if let query = try? PostgRESTQuery(pairs: pairs) {
        precondition(query.filters.count <= PostgRESTQuery.maximumFilters, "\(query.filters.count) filters")
        precondition(query.filters.allSatisfy { $0.values.count <= PostgRESTQuery.maximumListValues }, "a long list")
        for name in query.filters.map(\.column) + (query.select ?? []) + (query.onConflict ?? []) + (query.columns ?? []) + query.order.map(\.column) {
            precondition(!name.isEmpty && name.utf8.count <= 63 && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }, "column \(name)")
        }
        precondition(query.filters.allSatisfy { $0.op != .is || ["null", "true", "false"].contains($0.values.first ?? "") }, "is. value")
        columns = query.columns
    }
    if let rows = try? PostgRESTRows(json: body, columns: columns) {
        precondition(rows.rows.count <= PostgRESTRows.maximumRows, "\(rows.rows.count) rows")
        precondition(!rows.columns.isEmpty && Set(rows.columns).count == rows.columns.count, "columns \(rows.columns)")
        precondition(rows.rows.allSatisfy { $0.count == rows.columns.count }, "a row without every column")
    }
    // The same body as the auth server's: a sign-up accepted names no e-mail, phone or password; a refresh token is short.
    if (try? AuthRequestBody.signup(body)) != nil, !body.isEmpty {
        let node = try? JSONScanner.parse(body)
        precondition(node?.isObject == true && body.count <= AuthRequestBody.maximumBytes, "a sign-up that is no small object")
        precondition(["email", "phone", "password"].allSatisfy { node?[$0].map(\.isNull) ?? true }, "a sign-up with credentials")
    }
    if let token = try? AuthRequestBody.refreshToken(body) {
        precondition(!token.isEmpty && token.utf8.count <= AuthRequestBody.maximumTokenBytes, "token of \(token.utf8.count) bytes")
    }
    if let waves = try? WaveIDs(body: body) {
        precondition((try? WaveIDs(reading: body)) == waves, "the one-pass reader and the JSON reader disagree")
        precondition(body.count <= WaveIDs.maximumBody && waves.ids.count <= WaveIDs.maximumWaves, "\(waves.ids.count) waves from \(body.count) bytes")
        precondition(waves.count == waves.ids.count && waves.ids.map { Array($0.utf8) } == waves.ids.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) },
                     "ids not sorted by their bytes")
        precondition(Set(waves.ids.map { Array($0.utf8) }).count == waves.count, "ids not distinct")
        precondition(waves.ids.allSatisfy { (1...WaveIDs.maximumWaveBytes).contains($0.utf8.count) }, "an id's length")
        let again = "{ \"wave_ids\" : [" + (waves.ids.reversed() + waves.ids.prefix(1)).map(JSONWriter.quoted).joined(separator: " ,\n ") + "]   }"
        // (Written again within the bound: an escape can take more bytes than the one it replaces.)
        if again.utf8.count <= WaveIDs.maximumBody {
            precondition((try? WaveIDs(body: Array(again.utf8))) == waves, "the same waves written again are another key")
        }
    }
    return 0
}
