/// The parts of a response's head that do not change between sends (``HTTPResponse/preparedForSending()``): the status
/// line, and the handler's fields with `Content-Length`. What changes — `Date`, `Connection`, CORS — the encoder writes
/// around them on every send. A class: a response carrying it is copied by one reference count.
final class PreparedHead: Sendable {
    let statusLine: [UInt8]
    let fields: [UInt8]

    init(_ response: HTTPResponse) {
        var line: [UInt8] = []
        ResponseEncoder.appendStatusLine(response.status, to: &line)
        statusLine = line
        var fields: [UInt8] = []
        ResponseEncoder.appendFields(of: response, to: &fields)
        self.fields = fields
    }
}
