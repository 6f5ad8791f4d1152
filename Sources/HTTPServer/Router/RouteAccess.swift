/// Who may call a route from a browser on another origin.
///
/// The router applies it to every route of a path, so no handler deals with CORS: a `public` path's answers
/// (errors and `304`s included) carry `Access-Control-Allow-Origin: *` and its `OPTIONS` preflight is answered
/// with the methods the path has; a `restricted` path gets neither.
public enum RouteAccess: Sendable {
    case `public`
    case restricted
}
