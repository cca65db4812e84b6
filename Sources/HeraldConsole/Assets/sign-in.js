// The sign-in form posts itself; a refused token comes back as /sign-in?failed, said here. The page asked for
// (`next`) rides along in a hidden field, and the gateway takes only one of its own pages from it.
const query = new URLSearchParams(location.search);
if (query.has("failed")) {
  document.getElementById("failed").hidden = false;
}
document.getElementById("next").value = query.get("next") || "/";
