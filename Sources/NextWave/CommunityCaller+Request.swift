import HTTPServer

extension CommunityCaller.Credentials {
    /// What `request` shows: its `apikey` header and its `Authorization` header (one `Bearer` parser: the server
    /// core's).
    init(_ request: borrowing HTTPRequest) {
        apiKey = request.headers["apikey"]
        authorization = request.headers["authorization"].map { field in BearerToken.credentials(field).map(Authorization.bearer) ?? .notBearer } ?? .none
    }
}
