/// The parts of a response's head that do not change between sends (``HTTPResponse/preparedForSending()``): the status
/// line, and the handler's fields with `Content-Length`. What changes — `Date`, `Connection`, CORS — the encoder writes
/// around them on every send. A class: a response carrying it is copied by one reference count.
///
/// The fields are kept with and without `Content-Length`: a body replaced keeps the head (one prepared response is the
/// template of answers that differ only in their bodies — a rider's leaderboard), and its length is written then.
final class PreparedHead: Sendable {
    let statusLine: [UInt8]
    /// The fields and `Content-Length` of `bodyCount` bytes (when the status allows a body).
    let fields: [UInt8]
    /// The fields alone.
    let fieldsWithoutLength: [UInt8]
    let bodyCount: Int

    init(_ response: HTTPResponse) {
        var line: [UInt8] = []
        ResponseEncoder.appendStatusLine(response.status, to: &line)
        statusLine = line
        var fields: [UInt8] = []
        ResponseEncoder.appendFields(of: response, to: &fields)
        fieldsWithoutLength = fields
        if response.status.allowsBody { ResponseEncoder.appendLength(response.body.count, to: &fields) }
        self.fields = fields
        bodyCount = response.body.count
    }
}
