// iOS code downloads with `URLSession.shared` having imported only Foundation; on Linux URLSession, URLRequest and
// HTTPURLResponse live in FoundationNetworking. Extensions and apps import UserNotifications, so it brings them: the
// seeds' code compiles unchanged. (It links libcurl, as FoundationNetworking does.)
#if canImport(FoundationNetworking)
@_exported public import FoundationNetworking
#endif
