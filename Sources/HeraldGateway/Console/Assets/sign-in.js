// The sign-in form posts itself; a refused token comes back as /sign-in?failed, said here.
if (new URLSearchParams(location.search).has("failed")) {
  document.getElementById("failed").hidden = false;
}
