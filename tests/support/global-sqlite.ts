import { globalServer } from "./global-server";
export default globalServer("sqlite");
